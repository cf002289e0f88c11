/* typedef of a struct, used for variables, parameters and results */
#include <stdio.h>
typedef struct { int re, im; } complex_int;
complex_int mul(complex_int a, complex_int b) {
    complex_int r;
    r.re = a.re * b.re - a.im * b.im;
    r.im = a.re * b.im + a.im * b.re;
    return r;
}
int main(void) {
    complex_int a = {1, 2}, b = {3, 4};
    complex_int c = mul(a, b);
    printf("%d %d\n", c.re, c.im);
    return 0;
}
