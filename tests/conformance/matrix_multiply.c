/* sequential matrix multiplication (the seed's example without processes) */
#include <stdio.h>
#define N 4
int main(void) {
    int a[N][N], b[N][N], c[N][N];
    int i, j, k;
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) { a[i][j] = i + j; b[i][j] = i - j; }
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) {
            c[i][j] = 0;
            for (k = 0; k < N; k++) c[i][j] += a[i][k] * b[k][j];
        }
    for (i = 0; i < N; i++) printf("%d %d %d %d\n", c[i][0], c[i][1], c[i][2], c[i][3]);
    return 0;
}
