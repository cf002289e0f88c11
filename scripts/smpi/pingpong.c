/* Ping-pong between rank 0 and rank PEER of N bytes, REPS round trips; prints
   "bytes peer one-way-microseconds". A workload of scripts/smpi-suite.sh, run by
   SimGrid's smpirun. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int rank, reps = 10;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc < 3) {
    if (rank == 0) fprintf(stderr, "usage: pingpong BYTES PEER\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int n = atoi(argv[1]), peer = atoi(argv[2]);
  char *buf = calloc(n > 0 ? n : 1, 1);
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  for (int i = 0; i < reps; i++) {
    if (rank == 0) {
      MPI_Send(buf, n, MPI_BYTE, peer, 0, MPI_COMM_WORLD);
      MPI_Recv(buf, n, MPI_BYTE, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == peer) {
      MPI_Recv(buf, n, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf, n, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
    }
  }
  double t1 = MPI_Wtime();
  if (rank == 0) printf("%d %d %.6f\n", n, peer, (t1 - t0) / (2 * reps) * 1e6);
  free(buf);
  MPI_Finalize();
  return 0;
}
