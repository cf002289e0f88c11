/* recursive quicksort on an array */
#include <stdio.h>
void sort(int *a, int lo, int hi) {
    int i = lo, j = hi, p = a[(lo + hi) / 2], t;
    while (i <= j) {
        while (a[i] < p) i++;
        while (a[j] > p) j--;
        if (i <= j) { t = a[i]; a[i] = a[j]; a[j] = t; i++; j--; }
    }
    if (lo < j) sort(a, lo, j);
    if (i < hi) sort(a, i, hi);
}
int main(void) {
    int a[12] = {9, 4, 7, 1, 12, 3, 8, 11, 2, 6, 10, 5};
    int i;
    sort(a, 0, 11);
    for (i = 0; i < 12; i++) printf("%d ", a[i]);
    printf("\n");
    return 0;
}
