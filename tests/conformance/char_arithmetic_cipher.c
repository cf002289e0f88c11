/* character arithmetic: a Caesar cipher */
#include <stdio.h>
int main(void) {
    char s[] = "attack at dawn";
    int i;
    for (i = 0; s[i]; i++)
        if (s[i] >= 'a' && s[i] <= 'z') s[i] = 'a' + (s[i] - 'a' + 3) % 26;
    printf("%s\n", s);
    return 0;
}
