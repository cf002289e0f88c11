/* An array declared extern with a size and then defined with its size left to the
   initialiser is one array of the declared size (C11 6.2.7p3); a member of the struct a
   call returns (f().a, p->f().b through a pointer) is read from the returned value. */
#include <stdio.h>

extern int table[6];
int table[] = { 12, 34, };

struct pair { int a; double b; };

static struct pair make(int a) {
    struct pair p = { a, a / 2.0 };
    return p;
}

static struct pair (*maker)(int) = make;

int main(void) {
    printf("%d %d %d %d\n", (int)(sizeof table / sizeof table[0]), table[0], table[1], table[5]);
    printf("%d %g %d\n", make(3).a, make(5).b, maker(7).a + make(1).a);
    return 0;
}
