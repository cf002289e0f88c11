/* A program's own prototype of a library function with other (word-compatible)
   types (`int strlen(char *)`, as old code writes it): accepted with a warning, the
   library's body compiled with the program's types. An unused block-scope prototype
   is dropped. `char *` and `signed char *` convert with a warning, and a char read
   through `signed char *` is signed, as gcc reads it. */
#include <stdio.h>

int strlen(char *);
int atoi(char *);

int main(void) {
    int unused_helper(int);
    char *p = "hello";
    char buf[4] = {'a', (char)200, 'c', 0};
    signed char *s = buf;
    s[2] = -3;
    char *back = s;
    printf("%d %d\n", strlen(p) - 5, atoi("-42") + 2);
    printf("%d %d %d %d\n", s[0], s[1], buf[2], back[2]);
    return 0;
}
