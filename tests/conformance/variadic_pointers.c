/* Pointers to variadic functions (the program's own and the library's formatted
   output), structs passed through `...` and read back with va_arg, and `%.Ns` on a
   char array with no NUL in its first N characters. */
#include <stdarg.h>
#include <stdio.h>

struct pair { int a; double b; };
struct tag { char name[3]; };

static int sum(int n, ...) {
    va_list ap;
    va_start(ap, n);
    int s = 0;
    for (int i = 0; i < n; i++) s += va_arg(ap, int);
    va_end(ap);
    return s;
}

static double pairs(int n, ...) {
    va_list ap;
    va_start(ap, n);
    double s = 0;
    for (int i = 0; i < n; i++) {
        struct pair p = va_arg(ap, struct pair);
        s += p.a * p.b;
    }
    int tail = va_arg(ap, int);
    va_end(ap);
    return s + tail;
}

static void show(const char *what, ...) {
    va_list ap;
    va_start(ap, what);
    struct tag t = va_arg(ap, struct tag);
    char c = (char)va_arg(ap, int);
    printf("%s %.3s %c\n", what, t.name, c);
    va_end(ap);
}

int (*psum)(int, ...) = sum;
int (*pfprintf)(FILE *, const char *, ...) = &fprintf;

int main(void) {
    int (*ps)(const char *, ...) = printf;
    int (*psp)(char *, const char *, ...) = sprintf;
    char buf[32];
    struct pair x = {2, 1.5}, y = {3, 0.25};
    struct tag t = {{'a', 'b', 'c'}};
    printf("%d %d\n", psum(3, 1, 2, 3), (*psum)(0));
    printf("%.2f\n", pairs(2, x, y, 100));
    show("tag", t, 'z');
    pfprintf(stdout, "%s=%d\n", "n", 42);
    int n = ps("%5.1f|%-3d|\n", 2.25, 7);
    psp(buf, "%03d", 9);
    printf("%d %s %.2s\n", n, buf, t.name);
    return 0;
}
