-- The attacker wins if it guesses someone's salary within 100 units (Sec. 6.2).
SELECT
    employee.salary approx 100
FROM employee;
