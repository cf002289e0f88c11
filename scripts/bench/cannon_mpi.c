/* Cannon's algorithm in MPI for the network benchmark (scripts/bench-cannon.sh), the same
 * computation as cannon.c: 256 ranks on a periodic 16x16 cartesian communicator, one
 * element of A and of B per rank, A[i][j] = (3i + 5j) % 7 + 1, B[i][j] = (2i + 7j) % 5 + 1.
 * Skew with MPI_Sendrecv_replace (A[i][j] i columns left, B[i][j] j rows up; row 0 and
 * column 0 keep theirs), then ITERS steps of c += a * b and a shift of a left and b up by
 * one with MPI_Sendrecv_replace. Rank 0 prints the checksum of C (MPI_Reduce), the same
 * number as cannon.c. Point-to-point messages: 256 * 2 * ITERS + 480 (skew). */
#include <mpi.h>
#include <stdio.h>
#define N 16
#ifndef ITERS
#define ITERS 1000
#endif
int main(int argc, char **argv) {
    int size, rank, coords[2], i, j, a, b, c, t, sum;
    int dims[2] = {N, N}, periods[2] = {1, 1};
    int src, dst, left, right, above, below;
    MPI_Comm cart;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != N * N) {
        fprintf(stderr, "cannon_mpi: needs %d ranks, got %d\n", N * N, size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    MPI_Comm_rank(cart, &rank);
    MPI_Cart_coords(cart, rank, 2, coords);
    i = coords[0];
    j = coords[1];
    a = (3 * i + 5 * j) % 7 + 1;
    b = (2 * i + 7 * j) % 5 + 1;
    if (i > 0) {
        MPI_Cart_shift(cart, 1, -i, &src, &dst);
        MPI_Sendrecv_replace(&a, 1, MPI_INT, dst, 0, src, 0, cart, MPI_STATUS_IGNORE);
    }
    if (j > 0) {
        MPI_Cart_shift(cart, 0, -j, &src, &dst);
        MPI_Sendrecv_replace(&b, 1, MPI_INT, dst, 0, src, 0, cart, MPI_STATUS_IGNORE);
    }
    MPI_Cart_shift(cart, 1, -1, &right, &left);
    MPI_Cart_shift(cart, 0, -1, &below, &above);
    c = 0;
    for (t = 0; t < ITERS; t++) {
        c += a * b;
        MPI_Sendrecv_replace(&a, 1, MPI_INT, left, 1, right, 1, cart, MPI_STATUS_IGNORE);
        MPI_Sendrecv_replace(&b, 1, MPI_INT, above, 2, below, 2, cart, MPI_STATUS_IGNORE);
    }
    MPI_Reduce(&c, &sum, 1, MPI_INT, MPI_SUM, 0, cart);
    if (rank == 0)
        printf("checksum %d\n", sum);
    MPI_Comm_free(&cart);
    MPI_Finalize();
    return 0;
}
