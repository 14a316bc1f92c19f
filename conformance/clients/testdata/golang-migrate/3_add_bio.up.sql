ALTER TABLE users ADD COLUMN bio TEXT NULL;
UPDATE users SET bio = 'first programmer' WHERE email = 'ada@example.com';
