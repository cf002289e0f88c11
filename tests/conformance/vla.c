/* Variable-length arrays (C99 6.7.6.2): sized when the declaration runs, sizeof counted
   then, freed at the end of their block; a declaration run again (a loop, a goto back
   over it) gets the storage the previous run left, as gcc's stack does. */
#include <stdio.h>

static int sum_squares(int n) {
    int a[n];
    for (int i = 0; i < n; i++) a[i] = i * i;
    int s = 0;
    for (int i = 0; i < n; i++) s += a[i];
    printf("sizeof a / sizeof a[0] = %d\n", (int)(sizeof a / sizeof a[0]));
    return s;
}

static double trace(int n) {
    double m[n][3];
    for (int i = 0; i < n; i++)
        for (int j = 0; j < 3; j++) m[i][j] = i + j / 10.0;
    return m[n - 1][2] + m[0][1];
}

static void rows(int n, double m[][2]) {
    for (int i = 0; i < n; i++) printf("%g %g\n", m[i][0], m[i][1]);
}

int main(void) {
    printf("%d %g\n", sum_squares(10), trace(5));
    void *first = 0;
    int same = 1;
    for (int k = 1; k < 5; k++) {
        char buf[k + 1];
        for (int j = 0; j < k; j++) buf[j] = 'a' + j;
        buf[k] = 0;
        printf("%s\n", buf);
        if (k == 1) first = buf;
        else if ((void *)buf == first) same++;
    }
    printf("%d\n", same > 0);
    int n = 3;
    double pairs[n][2];
    for (int i = 0; i < n; i++) { pairs[i][0] = i; pairs[i][1] = i * 0.5; }
    rows(n, pairs);
    return 0;
}
