/* struct assignment copies every member */
#include <stdio.h>
struct pair { int a; float b; char c; };
int main(void) {
    struct pair p, q;
    p.a = 5; p.b = 2.5f; p.c = 'k';
    q = p;
    p.a = 6;
    printf("%d %.1f %c %d\n", q.a, q.b, q.c, p.a);
    return 0;
}
