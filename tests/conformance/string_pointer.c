/* char pointers walking a string */
#include <stdio.h>
int length(char *s) { char *p = s; while (*p) p++; return p - s; }
int main(void) {
    char *msg = "parallel";
    printf("%d %c %c %s\n", length(msg), *msg, msg[3], msg + 4);
    return 0;
}
