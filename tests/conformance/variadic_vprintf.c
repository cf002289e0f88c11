/* vprintf, vsnprintf and vfprintf inside variadic functions */
#include <stdio.h>
#include <stdarg.h>
int logged = 0;
void logf_(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    printf("[%d] ", ++logged);
    vprintf(fmt, ap);
    va_end(ap);
}
int format_into(char *buf, int n, const char *fmt, ...) {
    va_list ap;
    int r;
    va_start(ap, fmt);
    r = vsnprintf(buf, n, fmt, ap);
    va_end(ap);
    return r;
}
void err(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stdout, fmt, ap);
    va_end(ap);
}
int main(void) {
    char buf[16];
    int r;
    logf_("%s has %d nodes\n", "mesh", 64);
    logf_("%5d|%-4s|%c|%x\n", 42, "ab", 'z', 255);
    logf_("no arguments\n");
    r = format_into(buf, sizeof buf, "%d-%d-%d-%d", 1000, 2000, 3000, 4000);
    printf("%s %d\n", buf, r);
    err("%s %d\n", "done", r);
    return 0;
}
