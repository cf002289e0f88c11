/* cpc-only: C++-style reference parameters */
#include <stdio.h>
void inc(int &x) { x = x + 1; }
void fill(int &a[4]) { int i; for (i = 0; i < 4; i++) a[i] = i; }
int main(void) {
    int v = 1, arr[4];
    inc(v);
    inc(v);
    fill(arr);
    printf("%d %d\n", v, arr[3]);
    return 0;
}
