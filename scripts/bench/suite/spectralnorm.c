/* The spectral-norm program of the Computer Language Benchmarks Game, n = 300
 * (scripts/bench-suite.sh): function calls in inner loops, double arithmetic. */
#define N 300
double u[N], v[N], t[N];

double A(int i, int j) {
    return 1.0 / ((i + j) * (i + j + 1) / 2 + i + 1);
}

void mul_av(double *x, double *y) {
    int i, j;
    double s;
    for (i = 0; i < N; i++) {
        s = 0.0;
        for (j = 0; j < N; j++)
            s = s + A(i, j) * x[j];
        y[i] = s;
    }
}

void mul_atv(double *x, double *y) {
    int i, j;
    double s;
    for (i = 0; i < N; i++) {
        s = 0.0;
        for (j = 0; j < N; j++)
            s = s + A(j, i) * x[j];
        y[i] = s;
    }
}

void main() {
    int i;
    double vbv, vv;
    for (i = 0; i < N; i++)
        u[i] = 1.0;
    for (i = 0; i < 10; i++) {
        mul_av(u, t);
        mul_atv(t, v);
        mul_av(v, t);
        mul_atv(t, u);
    }
    vbv = 0.0;
    vv = 0.0;
    for (i = 0; i < N; i++) {
        vbv = vbv + u[i] * v[i];
        vv = vv + v[i] * v[i];
    }
    printf("%.9f\n", sqrt(vbv / vv));
}
