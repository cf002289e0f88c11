/* file-scope initialisers with addresses */
#include <stdio.h>
int g = 5;
int *pg = &g;
char *greeting = "hi there";
int arr[3] = {7, 8, 9};
int *third = &arr[2];
int main(void) {
    *pg += 1;
    printf("%d %s %d\n", g, greeting, *third);
    return 0;
}
