/* strcat and strncat */
#include <stdio.h>
#include <string.h>
int main(void) {
    char s[40] = "mesh";
    strcat(s, ":");
    strcat(s, "8x8");
    strncat(s, "-torus", 3);
    printf("%s %d\n", s, (int)strlen(s));
    return 0;
}
