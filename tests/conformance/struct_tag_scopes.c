/* Struct tags follow C's scopes: a tag declared again in an inner block or in
   another function is a different type; a reference finds the innermost one; a
   file-scope tag named before its definition is completed by it. */
#include <stdio.h>

struct S;
typedef struct S S;
struct S *make(int v);

struct S {
    int x;
    struct S *next;
};

struct S *make(int v) {
    static struct S pool[4];
    static int used = 0;
    struct S *p = &pool[used++];
    p->x = v;
    p->next = 0;
    return p;
}

static int f(void) {
    struct T { int a, b; } t = {1, 2};
    return t.a + t.b;
}

static int g(void) {
    struct T { double d; int a[3]; } t = {0.5, {4, 5, 6}};
    return (int)(t.d * 2) + t.a[2];
}

int main(void) {
    S *a = make(3);
    a->next = make(4);
    struct S outer = {10, 0};
    {
        struct S { char c; } inner = {'q'};
        printf("%c %d\n", inner.c, (int)sizeof inner);
        {
            struct S *p = &inner;
            printf("%c\n", p->c);
        }
    }
    printf("%d %d %d\n", outer.x, a->x + a->next->x, f() * 100 + g());
    {
        struct node { int v; struct node *next; } n2 = {2, 0}, n1 = {1, &n2};
        int s = 0;
        for (struct node *p = &n1; p; p = p->next) s += p->v;
        printf("%d\n", s);
    }
    return 0;
}
