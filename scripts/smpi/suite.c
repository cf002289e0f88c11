/* The workloads of scripts/smpi-suite.sh, on 16 ranks of a 4x4 torus (rank = 4*row +
   col): `suite WORKLOAD BYTES [PEER]` prints "WORKLOAD,BYTES,PEER,microseconds": the
   time from a common start until the last rank is done (for the ping-pong, one way).

   Each is the twin of a CPC program in fixtures/profiles/smpi/ and is written as that
   program is: a channel send is an MPI_Send, a channel receive an MPI_Recv from any
   source, each channel a tag. Every rank starts the timed part at T0 (10 ms) exactly:
   after a barrier it computes until then (smpi_execute_flops), so the barrier's skew is
   not measured; the CPC twins do the same with delay(T0 - simTime()). Each rank's end
   time is gathered after the timed part, and rank 0 prints the largest.

   pingpong  ranks 0 and PEER send BYTES back and forth, 10 round trips
   ring      a token of BYTES goes once around the ranks 0 -> 1 -> ... -> 15 -> 0
   gather    ranks 1..15 each send BYTES to rank 0
   exchange  every rank sends BYTES to each of its four torus neighbours
   contend   ranks 0 and 1 each send BYTES to rank 2 (both cross the link 1 -> 2),
             as one message, or as 50 messages each when BYTES < 1024
   cannon    Cannon's matrix product on 4x4 blocks of BYTES each: the skew, then three
             shifts of A left and B up (the products cost nothing here)
   alltoall  every rank sends BYTES to every other, to rank+1, rank+2, ... in turn */
#include <mpi.h>
#include <smpi/smpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T0 0.01
#define SMALL 50

#define REPS 10
enum { BOX, BOX_B, SKEW_A, SKEW_B }; /* the CPC twins' channels, as tags */

static int at(int row, int col) { return 4 * ((row + 4) % 4) + (col + 4) % 4; }
/* A CPC channel send (it does not wait for the receiver) and receive (from any sender). */
static void send(char *buf, int n, int to, int tag) { MPI_Send(buf, n, MPI_BYTE, to, tag, MPI_COMM_WORLD); }
static void recv(char *buf, int n, int tag) {
  MPI_Recv(buf, n, MPI_BYTE, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv) {
  int rank, size;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc < 3 || size != 16) {
    if (rank == 0) fprintf(stderr, "usage: suite WORKLOAD BYTES [PEER] (16 ranks)\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const char *w = argv[1];
  int n = atoi(argv[2]), row = rank / 4, col = rank % 4;
  int peer = argc > 3 ? atoi(argv[3]) : 0;
  char *a = calloc(n, 1), *b = calloc(n, 1);
  MPI_Barrier(MPI_COMM_WORLD);
  double now = MPI_Wtime();
  if (now < T0) smpi_execute_flops((T0 - now) * 1e9); /* 1 Gflop/s hosts: T0 exactly */
  if (!strcmp(w, "pingpong")) {
    for (int k = 0; k < REPS; k++) {
      if (rank == 0) {
        send(a, n, peer, BOX);
        recv(a, n, BOX);
      } else if (rank == peer) {
        recv(a, n, BOX);
        send(a, n, 0, BOX);
      }
    }
  } else if (!strcmp(w, "ring")) {
    if (rank == 0) {
      send(a, n, 1, BOX);
      recv(a, n, BOX);
    } else {
      recv(a, n, BOX);
      send(a, n, (rank + 1) % 16, BOX);
    }
  } else if (!strcmp(w, "gather")) {
    if (rank == 0)
      for (int k = 1; k < 16; k++) recv(a, n, BOX);
    else
      send(a, n, 0, BOX);
  } else if (!strcmp(w, "exchange")) {
    send(a, n, at(row, col - 1), BOX);
    send(a, n, at(row, col + 1), BOX);
    send(a, n, at(row - 1, col), BOX);
    send(a, n, at(row + 1, col), BOX);
    for (int k = 0; k < 4; k++) recv(a, n, BOX);
  } else if (!strcmp(w, "contend")) {
    int count = n < 1024 ? SMALL : 1;
    if (rank == 2)
      for (int k = 0; k < 2 * count; k++) recv(a, n, BOX);
    else if (rank < 2)
      for (int k = 0; k < count; k++) send(a, n, 2, BOX);
  } else if (!strcmp(w, "cannon")) {
    if (row) { /* a block that stays in place is not sent */
      send(a, n, at(row, col - row), SKEW_A);
      recv(a, n, SKEW_A);
    }
    if (col) {
      send(b, n, at(row - col, col), SKEW_B);
      recv(b, n, SKEW_B);
    }
    for (int k = 0; k < 3; k++) {
      send(a, n, at(row, col - 1), BOX);
      recv(a, n, BOX);
      send(b, n, at(row - 1, col), BOX_B);
      recv(b, n, BOX_B);
    }
  } else if (!strcmp(w, "alltoall")) {
    for (int k = 1; k < 16; k++) send(a, n, (rank + k) % 16, BOX);
    for (int k = 1; k < 16; k++) recv(a, n, BOX);
  } else {
    if (rank == 0) fprintf(stderr, "suite: no workload %s\n", w);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  double mine = (MPI_Wtime() - T0) * 1e6, most = 0;
  MPI_Reduce(&mine, &most, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (!strcmp(w, "pingpong")) most /= 2 * REPS; /* one way */
  if (rank == 0) printf("%s,%d,%d,%.6f\n", w, n, peer, most);
  free(a);
  free(b);
  MPI_Finalize();
  return 0;
}
