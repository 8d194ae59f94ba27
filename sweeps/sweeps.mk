# sweeps/sweeps.mk — targets of `ocasim sweep` (sweep files live in this folder).
#   make mpi-check     the MPI build (make MPI=1: build/mpi/ocasim) under mpirun -np 2 --oversubscribe
#                      gives the same rows as the threaded run (CI; scripts/mpi-check.sh)
#   make bench-sweep   points/s of a 1000-point bound sweep on one thread, the shell loop it replaces,
#                      and -j 2 vs -j 1 for bound and run points (part of make bench; scripts/bench-sweep.sh)
#   make sweep-demo    the 200-point 800G sweep killed midway, resumed and compared with an
#                      uninterrupted run, then loaded in pandas (scripts/sweep-demo.sh; a few minutes)
.PHONY: mpi-check bench-sweep sweep-demo
BENCH_TARGETS += bench-sweep

mpi-check: $(BIN)
	@$(MAKE) --no-print-directory MPI=1 build/mpi/ocasim
	@sh scripts/mpi-check.sh ./$(BIN) build/mpi/ocasim

bench-sweep: $(BIN)
	@sh scripts/bench-sweep.sh ./$(BIN)

sweep-demo: $(BIN)
	@sh scripts/sweep-demo.sh ./$(BIN)
