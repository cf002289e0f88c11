/* Sequential matrix multiply for the interpreter benchmark (scripts/bench-interp.sh, scripts/bench-suite.sh):
 * C = A * B with n = 200, A[i][j] = (i + j) % 7, B[i][j] = (i * j) % 5; prints the
 * trace of C (the same number as matmul.lua). */
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
                s = s + a[i][k] * b[k][j];
            c[i][j] = s;
        }
    tr = 0;
    for (i = 0; i < N; i++)
        tr = tr + c[i][i];
    printf("trace %d\n", tr);
}
