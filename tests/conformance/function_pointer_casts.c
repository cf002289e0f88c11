/* A function pointer type as a type name: casts to it, a null one, sizeof and a
   compound use in a conditional call (C11 6.7.7). */
#include <stdio.h>

static int twice(int x) { return 2 * x; }
static int thrice(int x) { return 3 * x; }

int main(void) {
    int (*f)(int) = (int (*)(int))twice;
    void (*none)(void) = (void (*)(void))0;
    int (*pick)(int) = none == 0 ? (int (*)(int))thrice : f;
    printf("%d %d %d\n", f(4), pick(4), none == 0);
    printf("%d\n", (int)(sizeof(int (*)(int)) == sizeof(void *)));
    return 0;
}
