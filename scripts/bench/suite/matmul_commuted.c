/* The benchmark suite's matmul (scripts/bench-suite.sh), its sum commuted. */
#define N 200
int a[N][N], b[N][N], c[N][N];
void main() {
    int i, j, k, s, tr;
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) {
            a[i][j] = (i + j) % 7;
            b[i][j] = (i * j) % 5;
        }
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) {
            s = 0;
            for (k = 0; k < N; k++)
                s = a[i][k] * b[k][j] + s;
            c[i][j] = s;
        }
    tr = 0;
    for (i = 0; i < N; i++)
        tr = tr + c[i][i];
    printf("trace %d\n", tr);
}
