/* break leaves the switch, continue the loop */
#include <stdio.h>
int main(void) {
    int i, n = 0;
    for (i = 0; i < 6; i++) {
        switch (i % 3) {
        case 0: continue;
        case 1: n += 10; break;
        default: n += 1;
        }
        n += 100;
    }
    printf("%d\n", n);
    return 0;
}
