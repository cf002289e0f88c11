/* A pointer conversion that differs only in signedness (int * to unsigned *, long * to
   unsigned long *) is accepted with a warning, as C compilers do; the words are read
   the other way. */
#include <stdio.h>
int main(void) {
    int a[3] = {1, -2, 3};
    unsigned *u = a;
    long l = -5;
    unsigned long *ul = &l;
    int *back = u;
    printf("%u %u %lu %d\n", u[0], u[1], *ul, back[1]);
    return 0;
}
