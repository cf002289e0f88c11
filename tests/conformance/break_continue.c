/* break and continue in nested loops */
#include <stdio.h>
int main(void) {
    int i, j, count = 0;
    for (i = 0; i < 10; i++) {
        if (i % 2) continue;
        for (j = 0; j < 10; j++) {
            if (j > i) break;
            count++;
        }
    }
    printf("%d\n", count);
    return 0;
}
