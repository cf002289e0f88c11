/* const applies to the object, not to what its pointers point to: writes through a const struct's pointer member, a pointer to non-const from a const pointer, and reassigning a pointer to const all compile */
#include <stdio.h>
struct S { int *p; int n; };
int buf[3];
int main(void) {
    const struct S s = { buf, 3 };
    int *const q = buf + 1;
    const char *t = "first";
    s.p[0] = 7;
    *q = 8;
    q[1] = 9;
    t = "second";
    printf("%d %d %d %d %s\n", buf[0], buf[1], buf[2], s.n, t);
    return 0;
}
