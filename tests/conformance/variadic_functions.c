/* variadic functions: va_start, va_arg, va_end over ints and strings; a char is passed as an int */
#include <stdio.h>
#include <stdarg.h>
int sum(int n, ...) {
    va_list ap;
    int s = 0, i;
    va_start(ap, n);
    for (i = 0; i < n; i++) s += va_arg(ap, int);
    va_end(ap);
    return s;
}
void show(const char *label, ...) {
    va_list ap;
    char *s;
    va_start(ap, label);
    printf("%s:", label);
    while ((s = va_arg(ap, char *)) != NULL) printf(" %s", s);
    printf("\n");
    va_end(ap);
}
int main(void) {
    char c = 'x';
    printf("%d %d %d\n", sum(0), sum(3, 1, 2, 3), sum(2, c, 1));
    show("topologies", "mesh", "torus", "ring", (char *)NULL);
    return 0;
}
