/* switch cases fall through without break */
#include <stdio.h>
int main(void) {
    int i;
    for (i = 0; i < 4; i++) {
        switch (i) {
        case 0: printf("a");
        case 1: printf("b"); break;
        case 2:
        case 3: printf("c");
        }
        printf("|");
    }
    printf("\n");
    return 0;
}
