/* Quicksort of 200 000 ints from a linear congruential generator (scripts/bench-suite.sh):
 * recursion, swaps, comparisons on array elements. */
#define N 200000
int a[N];
void sort(int lo, int hi) {
    int i, j, p, t;
    while (lo < hi) {
        p = a[(lo + hi) / 2];
        i = lo;
        j = hi;
        while (i <= j) {
            while (a[i] < p) i++;
            while (a[j] > p) j--;
            if (i <= j) {
                t = a[i]; a[i] = a[j]; a[j] = t;
                i++;
                j--;
            }
        }
        if (j - lo < hi - i) {
            sort(lo, j);
            lo = i;
        } else {
            sort(i, hi);
            hi = j;
        }
    }
}
void main() {
    int i, x, sum;
    x = 12345;
    for (i = 0; i < N; i++) {
        x = (x * 1103515245 + 12345) & 2147483647;
        a[i] = x % 1000000;
    }
    sort(0, N - 1);
    sum = 0;
    for (i = 1; i < N; i++)
        if (a[i - 1] > a[i])
            sum = -1;
    printf("sorted %d, first %d, middle %d, last %d\n", sum == 0, a[0], a[N / 2], a[N - 1]);
}
