/* unions: a tagged union read through the member last stored, initialised by first or designated member */
#include <stdio.h>
typedef enum { INT_V, FLT_V, STR_V } kind;
typedef struct { kind k; union { int i; float f; char *s; } u; } value;
union pair { int whole; struct { int lo, hi; } parts; };
void show(value v) {
    switch (v.k) {
    case INT_V: printf("int %d\n", v.u.i); break;
    case FLT_V: printf("float %.2f\n", v.u.f); break;
    default: printf("str %s\n", v.u.s);
    }
}
int main(void) {
    value a, b, c;
    union pair p = {7};
    union pair q = {.parts = {1, 2}};
    a.k = INT_V; a.u.i = 42;
    b.k = FLT_V; b.u.f = 2.5f;
    c.k = STR_V; c.u.s = "text";
    show(a); show(b); show(c);
    printf("%d %d %d %d\n", (int)sizeof(union pair) == (int)sizeof(p.parts), p.whole, q.parts.hi, q.whole);
    b.u.i = 9;
    printf("%d\n", b.u.i);
    return 0;
}
