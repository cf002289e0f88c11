/* function pointers: typedef, arrays, struct fields, parameters, & and *, file-scope initialisers, a library function */
#include <stdio.h>
#include <string.h>
typedef int (*binop)(int, int);
int add(int a, int b) { return a + b; }
int sub(int a, int b) { return a - b; }
int mul(int a, int b) { return a * b; }
int apply(binop f, int a, int b) { return f(a, b); }
struct op { char name[4]; binop fn; };
binop global_op = mul;
int (*table[3])(int, int) = {add, sub, &mul};
void each(int *a, int n, void (*visit)(int *)) { int i; for (i = 0; i < n; i++) visit(&a[i]); }
void twice(int *x) { *x *= 2; }
int main(void) {
    int (*fp)(int, int) = add;
    struct op ops[2] = {{"add", add}, {"sub", sub}};
    int a[3] = {1, 2, 3}, i;
    size_t (*len)(const char *) = strlen;
    printf("%d %d %d\n", fp(2, 3), (*fp)(4, 5), apply(sub, 10, 4));
    fp = &mul;
    printf("%d %d\n", fp(6, 7), global_op(3, 3));
    for (i = 0; i < 3; i++) printf("%d ", table[i](8, 2));
    printf("\n%s=%d %s=%d\n", ops[0].name, ops[0].fn(1, 1), ops[1].name, ops[1].fn(1, 1));
    each(a, 3, twice);
    printf("%d %d %d %d %d\n", a[0], a[1], a[2], fp == mul, fp != NULL);
    printf("%d\n", (int)len("pointer"));
    return 0;
}
