/* const, volatile, restrict and register qualifiers */
#include <stdio.h>
int sum(const int *restrict a, int n) {
    register int s = 0;
    for (register int i = 0; i < n; i++) s += a[i];
    return s;
}
int main(void) {
    const int data[3] = {4, 5, 6};
    volatile int flag = 1;
    const char *const msg = "ok";
    int const k = 2;
    printf("%d %d %s %d\n", sum(data, 3), flag, msg, k);
    return 0;
}
