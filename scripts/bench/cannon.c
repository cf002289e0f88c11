/* Cannon's algorithm for the network benchmark (scripts/bench-cannon.sh): C = A * B on a
 * 16x16 torus with one element of A and of B per process. Each process skews its
 * elements over the channels Askew/Bskew (A[i][j] goes i columns left, B[i][j] j rows
 * up), then runs ITERS shift-multiply-accumulate steps: c += a * b, send a to the left
 * neighbour and b to the one above, receive the new a and b. A[i][j] = (3i + 5j) % 7 + 1,
 * B[i][j] = (2i + 7j) % 5 + 1, in int so that the checksum is exact; after ITERS steps
 * process (i, j) holds the sum over t < ITERS of A[i][k] * B[k][j], k = (i + j + t) % n.
 * main checks every element against that sum, computed sequentially from the closed
 * form (ITERS / n whole turns plus ITERS % n steps) with the clock off, and prints the
 * checksum of C, the same number as cannon_mpi.c. Messages: 2 per process per step plus
 * 15 * 16 skew messages for A and as many for B (processes in row 0 / column 0 keep
 * theirs): 256 * 2 * ITERS + 480. */
#include "cpc.h"
#define n 16
#ifndef ITERS
#define ITERS 1000
#endif
arch torus T[n][n];
phyArch torus P[n][n];
channel int Achan[n][n], Bchan[n][n], Askew[n][n], Bskew[n][n];
void main() {
    int a[n][n], b[n][n], c[n][n];
    int i, j, k, t, whole, want, sum, bad;
    timeOff();
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) {
            a[i][j] = (3 * i + 5 * j) % 7 + 1;
            b[i][j] = (2 * i + 7 * j) % 5 + 1;
        }
    timeOn();
    forall (i from 0 to n-1)
        forall (j from 0 to n-1)
            fork [i*n+j; Achan[i][j], Bchan[i][j], Askew[i][j], Bskew[i][j]]
                cell(i, j, a[i][j], b[i][j], c[i][j]);
    timeOff();
    sum = 0;
    bad = 0;
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) {
            whole = 0;
            for (k = 0; k < n; k++)
                whole = whole + a[i][k] * b[k][j];
            want = (ITERS / n) * whole;
            for (t = 0; t < ITERS % n; t++) {
                k = (i + j + t) % n;
                want = want + a[i][k] * b[k][j];
            }
            if (c[i][j] != want) {
                if (bad == 0)
                    printf("wrong c[%d][%d] = %d, want %d\n", i, j, c[i][j], want);
                bad = bad + 1;
            }
            sum = sum + c[i][j];
        }
    printf("checksum %d\n", sum);
    if (bad == 0)
        printf("check ok\n");
    else
        printf("check FAILED: %d wrong elements\n", bad);
}
void cell(int row, int col, int myA, int myB, int &mainC) {
    int iter, above, left, myC;
    left = (col + n - 1) % n;
    above = (row + n - 1) % n;
    if (row > 0)
        Askew[row][(col - row + n) % n] = myA;
    if (col > 0)
        Bskew[(row - col + n) % n][col] = myB;
    if (row > 0)
        myA = Askew[row][col];
    if (col > 0)
        myB = Bskew[row][col];
    myC = 0;
    for (iter = 0; iter < ITERS; iter++) {
        Achan[row][left] = myA;
        Bchan[above][col] = myB;
        myC += myA * myB;
        myA = Achan[row][col];
        myB = Bchan[row][col];
    }
    mainC = myC;
}
