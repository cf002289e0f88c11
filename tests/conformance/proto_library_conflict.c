/* A prototype of a library function that cannot take the library's body (another
   number of parameters) is reported at its own line, quoting the library's. One
   that differs only in word-compatible types (`int strlen(char *)`) is accepted
   with a warning: see library_redeclared.c. */
int strlen(const char *, int);
int main(void) { return strlen("ab", 1); }
