/* snprintf truncates and still returns the full length */
#include <stdio.h>
int main(void) {
    char buf[8];
    int n = snprintf(buf, sizeof buf, "%d-%d-%d", 1234, 5678, 9);
    printf("%s %d\n", buf, n);
    return 0;
}
