/* puts adds a newline; putchar writes one character */
#include <stdio.h>
int main(void) {
    char *s = "abc";
    int i;
    puts("first line");
    for (i = 0; s[i]; i++) putchar(s[i] - 32);
    putchar('\n');
    return 0;
}
