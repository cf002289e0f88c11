/* a program's own function of a library name is used instead */
#include <stdio.h>
int strlen(char *s) { return 99; }
int main(void) {
    printf("%d\n", strlen("abc"));
    return 0;
}
