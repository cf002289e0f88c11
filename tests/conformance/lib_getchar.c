/* getchar reads characters until EOF */
#include <stdio.h>
int main(void) {
    int c, lines = 0, chars = 0;
    while ((c = getchar()) != EOF) {
        chars++;
        if (c == '\n') lines++;
    }
    printf("%d %d\n", lines, chars);
    return 0;
}
