/* The benchmark suite's matmul (scripts/bench-suite.sh), on 1-D arrays indexed i * N + k. */
#define N 200
int a[N * N], b[N * N], c[N * N];
void main() {
    int i, j, k, s, tr;
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) {
            a[i * N + j] = (i + j) % 7;
            b[i * N + j] = (i * j) % 5;
        }
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) {
            s = 0;
            for (k = 0; k < N; k++)
                s += a[i * N + k] * b[k * N + j];
            c[i * N + j] = s;
        }
    tr = 0;
    for (i = 0; i < N; i++)
        tr = tr + c[i * N + i];
    printf("trace %d\n", tr);
}
