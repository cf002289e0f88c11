/* Prototypes as C allows them: a program's own declaration of a library function, an
   unused prototype of a function defined nowhere, a repeated prototype, and a
   block-scope prototype of a function defined later at file scope. */
#include <stdio.h>
#include <string.h>
extern int printf(const char *, ...);
size_t strlen(const char *s);
int unused(int x);
double never_called(double, double);
int twice(int);
int twice(int);
int main(void) {
    int helper(int);
    printf("%d\n", helper(3) + twice(2));
    printf("%d\n", (int)strlen("four"));
    return 0;
}
int helper(int v) { return v * 10; }
int twice(int v) { return 2 * v; }
