/* sprintf formats into a buffer and returns the length */
#include <stdio.h>
int main(void) {
    char buf[64];
    int n = sprintf(buf, "%s:%d:%c", "node", 42, '!');
    printf("%s %d\n", buf, n);
    return 0;
}
