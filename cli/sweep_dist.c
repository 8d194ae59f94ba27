/* cli/sweep_dist.c — Open MPI transport of `ocasim sweep` (see sweep_dist.h). Built with MPI
 * only by `make MPI=1` (mpicc, -DOCASIM_MPI); the default build has the one-process stubs.
 * A message is one run: its index (4 bytes, little-endian) then the CSV line, a NUL, the JSON
 * line and a NUL, sent with tag SWEEP_TAG_ROW. */
#include "cli/sweep_dist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef OCASIM_MPI
#include <mpi.h>

/* MPI message tag of a finished row (any tag the program uses for nothing else). */
#define SWEEP_TAG_ROW 15

static gboolean mpi_started(void)
{
  int up = 0, down = 0;
  MPI_Initialized(&up);
  MPI_Finalized(&down);
  return up && !down;
}

gboolean sweep_dist_init(int *argc, char ***argv, int *rank, int *size)
{
  int provided = 0;
  if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
    fprintf(stderr, "ocasim sweep: MPI_Init_thread failed\n");
    return FALSE;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, size);
  return TRUE;
}

void sweep_dist_finalize(void)
{
  if (mpi_started()) MPI_Finalize();
}

gint64 sweep_dist_bcast(gint64 value)
{
  long long v = value;
  MPI_Bcast(&v, 1, MPI_LONG_LONG, 0, MPI_COMM_WORLD);
  return v;
}

void sweep_dist_send(guint run, const char *csv, const char *json)
{
  size_t lc = strlen(csv), lj = strlen(json), n = 4 + lc + 1 + lj + 1;
  g_autofree unsigned char *buf = g_malloc(n);
  for (int i = 0; i < 4; i++) buf[i] = (unsigned char)(run >> (8 * i));
  memcpy(buf + 4, csv, lc + 1);
  memcpy(buf + 4 + lc + 1, json, lj + 1);
  MPI_Send(buf, (int)n, MPI_UNSIGNED_CHAR, 0, SWEEP_TAG_ROW, MPI_COMM_WORLD);
}

gboolean sweep_dist_poll(guint *run, char **csv, char **json)
{
  int flag = 0, n = 0;
  MPI_Status st;
  MPI_Iprobe(MPI_ANY_SOURCE, SWEEP_TAG_ROW, MPI_COMM_WORLD, &flag, &st);
  if (!flag) return FALSE;
  MPI_Get_count(&st, MPI_UNSIGNED_CHAR, &n);
  g_autofree unsigned char *buf = g_malloc((size_t)n + 1);
  MPI_Recv(buf, n, MPI_UNSIGNED_CHAR, st.MPI_SOURCE, SWEEP_TAG_ROW, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  buf[n] = 0;
  g_assert(n >= 6);
  *run = (guint)buf[0] | (guint)buf[1] << 8 | (guint)buf[2] << 16 | (guint)buf[3] << 24;
  *csv = g_strdup((const char *)buf + 4);
  *json = g_strdup((const char *)buf + 4 + strlen(*csv) + 1);
  return TRUE;
}

#else /* one process */

gboolean sweep_dist_init(int *argc G_GNUC_UNUSED, char ***argv G_GNUC_UNUSED, int *rank, int *size)
{
  *rank = 0;
  *size = 1;
  const char *n = g_getenv("OMPI_COMM_WORLD_SIZE");
  if (!n) n = g_getenv("PMI_SIZE");
  if (n && atoi(n) > 1) {
    fprintf(stderr,
            "ocasim sweep: started by mpirun with %s processes, but this ocasim was built without MPI: "
            "build it with 'make MPI=1' (build/mpi/ocasim)\n",
            n);
    return FALSE;
  }
  return TRUE;
}

void sweep_dist_finalize(void)
{
}

gint64 sweep_dist_bcast(gint64 value)
{
  return value;
}

void sweep_dist_send(guint run G_GNUC_UNUSED, const char *csv G_GNUC_UNUSED, const char *json G_GNUC_UNUSED)
{
  g_assert_not_reached(); /* one rank: nothing to send */
}

gboolean sweep_dist_poll(guint *run G_GNUC_UNUSED, char **csv G_GNUC_UNUSED, char **json G_GNUC_UNUSED)
{
  return FALSE;
}

#endif

int sweep_dist_local_size(void)
{
  const char *n = g_getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  int v = n ? atoi(n) : 1;
  return v > 0 ? v : 1;
}
