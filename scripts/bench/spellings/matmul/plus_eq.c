/* The matrix product with s += ... (scripts/bench-spellings.sh): the same program
 * as scripts/bench/suite/matmul.c, its sums spelled with +=. */
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
                s += a[i][k] * b[k][j];
            c[i][j] = s;
        }
    tr = 0;
    for (i = 0; i < N; i++)
        tr += c[i][i];
    printf("trace %d\n", tr);
}
