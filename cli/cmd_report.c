/* pmutrace report lives with pmutrace script in cmd_script.c: both run the same decode. */
