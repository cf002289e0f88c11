/* char arrays initialised from strings, NUL terminator */
#include <stdio.h>
int main(void) {
    char s[10] = "hello";
    char t[] = "abc";
    int n = 0;
    while (s[n]) n++;
    s[0] = 'j';
    printf("%s %d %s %d\n", s, n, t, t[3]);
    return 0;
}
