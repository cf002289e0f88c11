/* Cannon's matrix multiplication on a q x q periodic grid of ranks (q*q = size), blocks
   of B x B doubles (integer-valued, so every sum is exact): the initial skew, q steps of
   multiply-and-shift, and the trace and sum of C gathered on rank 0. */
#include <stdio.h>
#include <stdlib.h>
#include <mpi.h>
#define B 4
double a[B][B], b[B][B], c[B][B];
int main(int argc, char **argv) {
    int rank, size, q, dims[2] = {0, 0}, periods[2] = {1, 1}, coords[2], left, right, up, down, src, dst, i, j, k, s;
    double local[2], total[2];
    MPI_Comm grid;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Dims_create(size, 2, dims);
    q = dims[0];
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
    MPI_Comm_rank(grid, &rank);
    MPI_Cart_coords(grid, rank, 2, coords);
    for (i = 0; i < B; i++)
        for (j = 0; j < B; j++) {
            int gi = coords[0] * B + i, gj = coords[1] * B + j;
            a[i][j] = (gi + 2 * gj) % 7;
            b[i][j] = (3 * gi + gj) % 5;
            c[i][j] = 0;
        }
    MPI_Cart_shift(grid, 1, -coords[0], &src, &dst);
    MPI_Sendrecv_replace(a, B * B, MPI_DOUBLE, dst, 1, src, 1, grid, MPI_STATUS_IGNORE);
    MPI_Cart_shift(grid, 0, -coords[1], &src, &dst);
    MPI_Sendrecv_replace(b, B * B, MPI_DOUBLE, dst, 2, src, 2, grid, MPI_STATUS_IGNORE);
    MPI_Cart_shift(grid, 1, -1, &right, &left);
    MPI_Cart_shift(grid, 0, -1, &down, &up);
    for (s = 0; s < q; s++) {
        for (i = 0; i < B; i++)
            for (j = 0; j < B; j++)
                for (k = 0; k < B; k++) c[i][j] += a[i][k] * b[k][j];
        MPI_Sendrecv_replace(a, B * B, MPI_DOUBLE, left, 3, right, 3, grid, MPI_STATUS_IGNORE);
        MPI_Sendrecv_replace(b, B * B, MPI_DOUBLE, up, 4, down, 4, grid, MPI_STATUS_IGNORE);
    }
    local[0] = 0;
    local[1] = 0;
    for (i = 0; i < B; i++)
        for (j = 0; j < B; j++) {
            local[1] += c[i][j];
            if (coords[0] == coords[1] && i == j) local[0] += c[i][j];
        }
    MPI_Reduce(local, total, 2, MPI_DOUBLE, MPI_SUM, 0, grid);
    if (rank == 0) printf("cannon %dx%d grid of %dx%d blocks: trace %.0f sum %.0f\n", q, q, B, B, total[0], total[1]);
    MPI_Comm_free(&grid);
    MPI_Finalize();
    return 0;
}
