/* The matrix product in a function (scripts/bench-spellings.sh): the same program
 * as scripts/bench/suite/matmul.c, the product in a function of its size: loop bounds in a variable. */
#define N 200
int a[N][N], b[N][N], c[N][N];
void mul(int n) {
    int i, j, k, s;
    for (i = 0; i < n; i++)
        for (j = 0; j < n; j++) {
            s = 0;
            for (k = 0; k < n; k++)
                s = s + a[i][k] * b[k][j];
            c[i][j] = s;
        }
}
void main() {
    int i, j, tr;
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) {
            a[i][j] = (i + j) % 7;
            b[i][j] = (i * j) % 5;
        }
    mul(N);
    tr = 0;
    for (i = 0; i < N; i++)
        tr = tr + c[i][i];
    printf("trace %d\n", tr);
}
