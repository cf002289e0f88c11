/* strlen, strcpy, strncpy */
#include <stdio.h>
#include <string.h>
int main(void) {
    char buf[32];
    char part[8];
    strcpy(buf, "network");
    strncpy(part, buf, 3);
    part[3] = 0;
    printf("%d %s %s %d\n", (int)strlen(buf), buf, part, (int)strlen(""));
    return 0;
}
