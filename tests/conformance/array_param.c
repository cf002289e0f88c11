/* arrays passed to functions decay to pointers */
#include <stdio.h>
int sum(int a[], int n) { int s = 0, i; for (i = 0; i < n; i++) s += a[i]; return s; }
void fill(int *a, int n, int v) { int i; for (i = 0; i < n; i++) a[i] = v + i; }
int main(void) {
    int a[5];
    fill(a, 5, 10);
    printf("%d %d\n", sum(a, 5), sum(a + 1, 3));
    return 0;
}
