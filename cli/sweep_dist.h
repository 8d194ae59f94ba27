/* cli/sweep_dist.h — the distributed part of `ocasim sweep`: Open MPI when built with
 * `make MPI=1` (OCASIM_MPI defined, cli/sweep_dist.c), one process otherwise.
 *
 * Rank 0 writes the results; every rank evaluates the runs i with (i - start) % size == rank
 * on its own threads and sends each finished run's CSV and JSON lines to rank 0, which writes
 * them in run order, so the files equal a threaded run's byte for byte. Only the main thread
 * of a rank calls MPI (MPI_THREAD_FUNNELED). */
#ifndef CLI_SWEEP_DIST_H
#define CLI_SWEEP_DIST_H

#include <glib.h>

/* Starts MPI when built with it (MPI_Init_thread, funneled) and gives this process's rank and
 *  the number of ranks (0 and 1 without MPI).  Without MPI, refuses (FALSE, with a message on
 *  stderr) a launch by mpirun with several processes: each would run the whole sweep. */
gboolean sweep_dist_init(int *argc, char ***argv, int *rank, int *size);

/* Processes on this host (OMPI_COMM_WORLD_LOCAL_SIZE under mpirun, else 1): the default
 *  threads of a rank are the cores divided by it. */
int sweep_dist_local_size(void);

/* Ends MPI (MPI_Finalize) when it was started. */
void sweep_dist_finalize(void);

/* Rank 0's @value on every rank (MPI_Bcast); @value itself without MPI. */
gint64 sweep_dist_bcast(gint64 value);

/* Sends run @run's @csv and @json lines to rank 0 (blocking). */
void sweep_dist_send(guint run, const char *csv, const char *json);

/* Rank 0: a run another rank sent, if one is waiting (non-blocking): its index and lines
 *  (transfer full).  FALSE when none is waiting, and always without MPI. */
gboolean sweep_dist_poll(guint *run, char **csv, char **json);

#endif /* CLI_SWEEP_DIST_H */
