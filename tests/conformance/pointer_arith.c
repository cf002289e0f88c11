/* pointer arithmetic and comparison over an array */
#include <stdio.h>
int main(void) {
    int a[6] = {5, 10, 15, 20, 25, 30};
    int *p = a, *q = &a[5];
    int s = 0;
    while (p <= q) { s += *p; p += 2; }
    printf("%d %d %d\n", s, (int)(q - a), *(a + 3));
    p = q - 1;
    printf("%d %d\n", *p, p[-2]);
    return 0;
}
