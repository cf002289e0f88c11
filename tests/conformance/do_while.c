/* do-while runs its body at least once */
#include <stdio.h>
int main(void) {
    int i = 10, n = 0;
    do { n++; i++; } while (i < 5);
    printf("%d %d\n", n, i);
    i = 0;
    do { i += 3; } while (i < 10);
    printf("%d\n", i);
    return 0;
}
