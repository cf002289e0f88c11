/* The benchmark suite's matmul (scripts/bench-suite.sh), as while loops with k = k + 1. */
#define N 200
int a[N][N], b[N][N], c[N][N];
void main() {
    int i, j, k, s, tr;
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) {
            a[i][j] = (i + j) % 7;
            b[i][j] = (i * j) % 5;
        }
    i = 0;
    while (i < N) {
        j = 0;
        while (j < N) {
            s = 0;
            k = 0;
            while (k < N) {
                s = s + a[i][k] * b[k][j];
                k = k + 1;
            }
            c[i][j] = s;
            j = j + 1;
        }
        i = i + 1;
    }
    tr = 0;
    for (i = 0; i < N; i++)
        tr = tr + c[i][i];
    printf("trace %d\n", tr);
}
