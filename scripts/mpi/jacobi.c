/* Jacobi relaxation on a (q*N) x (q*N) integer grid split into N x N blocks over a q x q
   Cartesian grid of ranks (fixed boundary of 1000 on the top edge): each iteration
   exchanges the four halos with MPI_Sendrecv, then averages (integer division, so the
   result is exact whatever the order of the reduction). */
#include <stdio.h>
#include <mpi.h>
#define N 8
#define ITERS 20
int u[N + 2][N + 2], v[N + 2][N + 2];
int col_out[N], col_in[N];
int main(int argc, char **argv) {
    int rank, size, dims[2] = {0, 0}, periods[2] = {0, 0}, coords[2], up, down, left, right, it, i, j;
    long local, total;
    MPI_Comm grid;
    MPI_Init(&argc, &argv);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Dims_create(size, 2, dims);
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &grid);
    MPI_Comm_rank(grid, &rank);
    MPI_Cart_coords(grid, rank, 2, coords);
    MPI_Cart_shift(grid, 0, 1, &up, &down);
    MPI_Cart_shift(grid, 1, 1, &left, &right);
    if (coords[0] == 0)
        for (j = 0; j < N + 2; j++) u[0][j] = 1000;
    for (it = 0; it < ITERS; it++) {
        MPI_Sendrecv(&u[1][1], N, MPI_INT, up, 0, &u[N + 1][1], N, MPI_INT, down, 0, grid, MPI_STATUS_IGNORE);
        MPI_Sendrecv(&u[N][1], N, MPI_INT, down, 1, &u[0][1], N, MPI_INT, up, 1, grid, MPI_STATUS_IGNORE);
        if (coords[0] == 0)
            for (j = 0; j < N + 2; j++) u[0][j] = 1000;
        for (i = 0; i < N; i++) col_out[i] = u[i + 1][1];
        MPI_Sendrecv(col_out, N, MPI_INT, left, 2, col_in, N, MPI_INT, right, 2, grid, MPI_STATUS_IGNORE);
        if (right != MPI_PROC_NULL)
            for (i = 0; i < N; i++) u[i + 1][N + 1] = col_in[i];
        for (i = 0; i < N; i++) col_out[i] = u[i + 1][N];
        MPI_Sendrecv(col_out, N, MPI_INT, right, 3, col_in, N, MPI_INT, left, 3, grid, MPI_STATUS_IGNORE);
        if (left != MPI_PROC_NULL)
            for (i = 0; i < N; i++) u[i + 1][0] = col_in[i];
        for (i = 1; i <= N; i++)
            for (j = 1; j <= N; j++) v[i][j] = (u[i - 1][j] + u[i + 1][j] + u[i][j - 1] + u[i][j + 1]) / 4;
        for (i = 1; i <= N; i++)
            for (j = 1; j <= N; j++) u[i][j] = v[i][j];
    }
    local = 0;
    for (i = 1; i <= N; i++)
        for (j = 1; j <= N; j++) local += u[i][j];
    MPI_Reduce(&local, &total, 1, MPI_LONG, MPI_SUM, 0, grid);
    if (rank == 0) printf("jacobi %dx%d ranks, %d iterations: sum %ld\n", dims[0], dims[1], ITERS, total);
    MPI_Comm_free(&grid);
    MPI_Finalize();
    return 0;
}
