/* char literals, arithmetic on chars, escapes */
#include <stdio.h>
int main(void) {
    char c = 'A';
    char n = '\n';
    c = c + 2;
    printf("%c %d %d %d\n", c, c, 'z' - 'a', n);
    printf("%c%c%c\n", 'h', 'i', '!');
    printf("%d %d %d\n", '\t', '\\', '\'');
    return 0;
}
