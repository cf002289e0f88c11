/* ctype.h classification (as 0 or 1) and case mapping */
#include <stdio.h>
#include <ctype.h>
int main(void) {
    char *s = "Ab3 ,z";
    int i;
    for (i = 0; s[i]; i++)
        printf("%c:%d%d%d%d%d%d ", s[i], !!isalpha(s[i]), !!isdigit(s[i]), !!isspace(s[i]),
               !!isupper(s[i]), !!islower(s[i]), !!ispunct(s[i]));
    printf("\n%c%c%c\n", toupper('q'), tolower('Q'), toupper('1'));
    return 0;
}
