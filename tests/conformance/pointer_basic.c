/* & and *: reading and writing through a pointer */
#include <stdio.h>
int main(void) {
    int x = 10;
    int *p = &x;
    *p = 20;
    printf("%d %d\n", x, *p);
    *p += 5;
    printf("%d\n", x);
    return 0;
}
