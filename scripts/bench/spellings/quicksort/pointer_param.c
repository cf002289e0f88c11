/* Quicksort of an array passed as a pointer (scripts/bench-spellings.sh): the same program
 * as scripts/bench/suite/quicksort.c, the array passed to sort() as an int pointer. */
#define N 200000
int data[N];
void sort(int *a, int lo, int hi) {
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
            sort(a, lo, j);
            lo = i;
        } else {
            sort(a, i, hi);
            hi = j;
        }
    }
}
void main() {
    int i, x, sum;
    x = 12345;
    for (i = 0; i < N; i++) {
        x = (x * 1103515245 + 12345) & 2147483647;
        data[i] = x % 1000000;
    }
    sort(data, 0, N - 1);
    sum = 0;
    for (i = 1; i < N; i++)
        if (data[i - 1] > data[i])
            sum = -1;
    printf("sorted %d, first %d, middle %d, last %d\n", sum == 0, data[0], data[N / 2], data[N - 1]);
}
